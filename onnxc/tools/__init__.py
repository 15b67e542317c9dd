"""The command line and what it reports: compile/run/check/bench, the
operator table, size reports. The library never imports this package."""
