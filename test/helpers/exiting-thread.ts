// A job thread's module that ends without an error as soon as it is asked to run (thread.test.ts):
// what a thread that exits looks like to its caller.
export {};

declare const self: Worker;
self.onmessage = () => process.exit(0);
