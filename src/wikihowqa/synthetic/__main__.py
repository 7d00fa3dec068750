"""``python -m wikihowqa.synthetic.dataset OUT``: the paper-scale synthetic dataset (``synthetic.dataset``)."""

from wikihowqa.synthetic.dataset import main

main()
