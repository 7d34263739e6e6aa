"""Writes the dataset."""
from data import load

if __name__ == "__main__":
    load()
