"""The main screen's panes, one package each, and the widgets they share."""
