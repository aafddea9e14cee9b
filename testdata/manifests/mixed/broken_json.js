function b() {}
