from rubric_lsp.cli import main

raise SystemExit(main())
