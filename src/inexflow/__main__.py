from inexflow.front.cli import main

raise SystemExit(main())
