// a helper file with no manifest is ignored
