"""The model tree editor (Qt): an item model over the ModelDocument, the tree and property
docks, undoable edit commands, and the File / Edit menus. ``install_model_editor(window)``
puts it all into the main window."""
