from leaderboard.demo import main

raise SystemExit(main())
