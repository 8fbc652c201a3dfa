from inexflow.cli import main

raise SystemExit(main())
