import unittest

from model.net import Net


class NetTest(unittest.TestCase):
    def test_builds(self):
        self.assertIsNotNone(Net())
