/**
 * A table test of a pure function of one argument: one test a row, titled by `title` (jest's %s, %p, %j: the
 * argument, then the answer), each holding that the function answers the row's value (toEqual).
 */
export function answers<A, R>(fn: (arg: A) => R, title: string, rows: ReadonlyArray<readonly [A, R]>): void {
  test.each(rows.map(([arg, expected]): [A, R] => [arg, expected]))(title, (arg, expected) => {
    expect(fn(arg)).toEqual(expected);
  });
}
