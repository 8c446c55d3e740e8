import { repeats } from '../../src/schemas';

// The one duplicate check: the provider's refs and overrides, the migration's adjustments and the emulator's entry
// point rules all report repeats through it.
describe('repeats', () => {
  test.each<[string, Array<string | undefined>, Array<{ index: number; value: string; first: number }>]>([
    ['no repeat', ['a', 'b', 'c'], []],
    ['one repeat, named at the repeat with the first index', ['a', 'b', 'a'], [{ index: 2, value: 'a', first: 0 }]],
    ['a value three times: two repeats, both naming the first', ['x', 'x', 'x'], [{ index: 1, value: 'x', first: 0 }, { index: 2, value: 'x', first: 0 }]],
    ['undefined and empty values are not compared', [undefined, undefined, '', ''], []],
    ['an empty list', [], []],
  ])('%s', (_what, values, expected) => {
    expect(repeats(values)).toEqual(expected);
  });
});
