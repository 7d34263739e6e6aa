"""A small synthetic character-level corpus, generated in code.

No downloads: sentences are assembled from a fixed word list with a seeded
random generator, so every run (and every machine) sees the same text.
"""

import random

import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler

# 32 symbols: matches GPTConfig.vocab_size.
ALPHABET = "\n .,abcdefghijklmnopqrstuvwxyz!"
assert len(ALPHABET) == 31
PAD = "~"
VOCAB = PAD + ALPHABET
STOI = {ch: i for i, ch in enumerate(VOCAB)}

_SUBJECTS = ["the cat", "a dog", "my friend", "the old man", "a small bird", "the robot"]
_VERBS = ["sees", "likes", "chases", "finds", "draws", "builds"]
_OBJECTS = ["a red ball", "the moon", "some bread", "the river", "a green box", "many stars"]
_ENDINGS = [".", "!", ", quickly.", ", again."]


def encode(text: str):
    return [STOI[ch] for ch in text]


def decode(ids) -> str:
    return "".join(VOCAB[i] for i in ids)


def make_corpus(num_sentences: int = 400, seed: int = 0) -> str:
    rng = random.Random(seed)
    lines = []
    for _ in range(num_sentences):
        sentence = " ".join((rng.choice(_SUBJECTS), rng.choice(_VERBS), rng.choice(_OBJECTS)))
        lines.append(sentence + rng.choice(_ENDINGS))
    return "\n".join(lines) + "\n"


class CharDataset(Dataset):
    """Overlapping (input, target) windows of ``block_size`` characters."""

    def __init__(self, text: str, block_size: int, stride: int = 8):
        self.data = torch.tensor(encode(text), dtype=torch.long)
        self.block_size = block_size
        self.starts = list(range(0, len(self.data) - block_size - 1, stride))

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, i):
        s = self.starts[i]
        chunk = self.data[s:s + self.block_size + 1]
        return chunk[:-1], chunk[1:]


def split_corpus(text: str, val_fraction: float = 0.1):
    cut = int(len(text) * (1.0 - val_fraction))
    return text[:cut], text[cut:]


def build_loaders(block_size: int, batch_size: int, seed: int = 0, rank: int = 0,
                  world_size: int = 1):
    """Train/val loaders; with world_size > 1 each rank reads its own shard."""
    train_text, val_text = split_corpus(make_corpus(seed=seed))
    train_ds = CharDataset(train_text, block_size)
    val_ds = CharDataset(val_text, block_size)
    generator = torch.Generator().manual_seed(seed)
    sampler = None
    if world_size > 1:
        sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True,
                                     seed=seed, drop_last=True)
    # pin_memory speeds up host->GPU copies; the loader ignores it without a GPU.
    train_loader = DataLoader(train_ds, batch_size=batch_size, shuffle=sampler is None,
                              sampler=sampler, drop_last=True, generator=generator,
                              pin_memory=True, num_workers=0)
    val_loader = DataLoader(val_ds, batch_size=batch_size, shuffle=False, drop_last=True,
                            pin_memory=True, num_workers=0)
    return train_loader, val_loader
