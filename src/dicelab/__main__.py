"""``python -m dicelab`` runs the command-line interface."""

from dicelab.cli import main

if __name__ == "__main__":
    main()
