// Runs the suites that drive the real Pulumi engine first, then the rest: with two workers the
// long engine suites go side by side from the start, and the many short suites fill the gaps at the end, instead
// of one long engine suite starting last and running alone. Jest's own order (failed first, then by the time a
// suite took last run, else by size) decides within each group.
const Sequencer = require('@jest/test-sequencer').default;

const engine = /[\\/]test[\\/](e2e|resilience)[\\/]|engine\.test\.ts$/;

class EngineFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [...sorted.filter((test) => engine.test(test.path)), ...sorted.filter((test) => !engine.test(test.path))];
  }
}

module.exports = EngineFirst;
