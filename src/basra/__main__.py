from basra.cli import main

main()
