"""The screens above the main one, one module each; the dialogs they share sit below the screens that open them."""
