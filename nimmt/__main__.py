from nimmt.cli.entry import main

main()
