from nimmt.cli.main import main

main()
