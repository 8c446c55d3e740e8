// Suites that drive the real Pulumi engine run inline programs in jest's process. After a failed `up`, the
// Automation API's in-process language server can still be winding down the failed run while the next operation
// starts, and the next preview then sees an empty program. It was seen once in about five runs of
// test/e2e/waf-migration.test.ts and not reproduced since; the cause is not confirmed (suspected: @pulumi/pulumi's
// automation/server.js swallows the gRPC errors of that overlap), so there is no minimal reproduction yet. Such a test is run
// once more, with the first failure printed (never hidden), and fails if it fails again; scripts/test.sh names each
// retried test and counts them in its closing line (`jest: N passed, N failed, N retried`).
const testPath = expect.getState().testPath ?? '';
if (/[\\/]test[\\/](e2e|resilience)[\\/]/.test(testPath)) {
  jest.retryTimes(1, { logErrorsBeforeRetry: true });
}
