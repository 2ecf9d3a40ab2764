"""The spec machinery behind ``judge.specs``; import names from the face, not from here
(the modules' split is free to change)."""
