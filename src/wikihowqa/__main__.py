from wikihowqa.cli import main

main()
