import type { z } from 'zod';

// zod's own texts ("Too small: expected number to be >=0", "Invalid input: expected string, received number") are
// written for developers. Wherever a user reads a validation failure (a provider's check, planWafMigration), the
// parse is given this map instead: zod consults it only where a schema sets no message of its own.

const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  bigint: 'a whole number',
  date: 'a date',
  null: 'null',
};

const UNITS: Record<string, [one: string, many: string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
};

function bound(origin: string, limit: number | bigint, side: 'least' | 'most', inclusive: boolean | undefined): string {
  const unit = UNITS[origin];
  if (unit) return `at ${side} ${limit} ${Number(limit) === 1 ? unit[0] : unit[1]}`;
  if (inclusive === false) return `${side === 'least' ? 'greater' : 'less'} than ${limit}`;
  return `at ${side} ${limit}`;
}

/** Our text for a zod issue whose schema sets no message: what the value must be, in a user's words. */
export function readableIssue(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'too_small': {
      const unit = UNITS[issue.origin];
      if (unit && Number(issue.minimum) === 1) return issue.origin === 'string' ? 'must not be empty' : 'must hold at least one item';
      return `must be ${bound(issue.origin, issue.minimum, 'least', issue.inclusive)}`;
    }
    case 'too_big':
      return `must be ${bound(issue.origin, issue.maximum, 'most', issue.inclusive)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'has the wrong form' : `must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}`;
    case 'invalid_union':
      return 'matches none of the accepted forms';
    case 'invalid_key': {
      // The path ends at the key itself, so the key's own problem (`must be at most 50 characters`) says it all.
      const inner = issue.issues[0]?.message;
      return inner ? `the key ${inner}` : 'has a key that is not allowed';
    }
    case 'invalid_element':
      return 'has an element that is not allowed';
    default:
      return 'is not valid';
  }
}
