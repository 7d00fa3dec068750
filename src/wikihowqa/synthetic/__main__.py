"""``python -m wikihowqa.synthetic OUT``: the paper-scale synthetic dataset (``synthetic.dataset``)."""

from wikihowqa.synthetic.dataset import main

main()
