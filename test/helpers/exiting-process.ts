// A job process's module that ends without an error as soon as it is asked to run (process.test.ts):
// what a child that exits looks like to its caller.
process.on("message", () => process.exit(0));
