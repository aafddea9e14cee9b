function execute() { return "x"; }
