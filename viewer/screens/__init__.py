"""The viewer's screens (modal dialogs pushed over the panes)."""
