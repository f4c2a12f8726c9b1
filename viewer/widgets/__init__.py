"""The viewer's panes: Textual widgets fed from a ``LiveTranscript``."""
