import { answers } from '../support/table';
import { checkExpression, EXPRESSION_MAX_LENGTH, FIELDS, formatExpressionError, parseExpression, type ExpressionNode } from '../../src/expression';
import { FIELD_NAMES } from '../../src/expression/fields';
import { FUNCTION_NAMES } from '../../src/expression/functions';

/** A compact rendering of the tree: (and a b), (not x), (eq field "lit"), fn(args), field[index]. */
function shape(node: ExpressionNode): string {
  switch (node.kind) {
    case 'logical':
      return `(${node.operator} ${shape(node.left)} ${shape(node.right)})`;
    case 'not':
      return `(not ${shape(node.operand)})`;
    case 'group':
      return `[${shape(node.expression)}]`;
    case 'comparison': {
      const right = node.right;
      const value =
        right.kind === 'set' ? `{${right.items.length}}` : right.kind === 'list' ? `$${right.name}` : right.kind === 'string' ? right.image : right.kind === 'boolean' ? String(right.value) : right.image;
      return `(${node.operator} ${shape(node.left)} ${value})`;
    }
    case 'field':
      return node.name;
    case 'call':
      return `${node.name}(${node.args.map(shape).join(', ')})`;
    case 'index':
      return `${shape(node.target)}[${node.index.kind === 'all' ? '*' : node.index.kind === 'string' ? node.index.image : node.index.image}]`;
    case 'string':
    case 'int':
    case 'ip':
      return node.image;
    case 'boolean':
      return String(node.value);
  }
}

function tree(text: string): string {
  const parsed = parseExpression(text);
  if (!parsed.ok) throw new Error(parsed.errors.map(formatExpressionError).join('; '));
  return shape(parsed.ast);
}

describe('precedence', () => {
  answers(tree, '%s', [
    ['a and b or c', '(or (and a b) c)'],
    ['a or b and c', '(or a (and b c))'],
    ['a xor b and c', '(xor a (and b c))'],
    ['a or b xor c', '(or a (xor b c))'],
    ['a xor b or c xor d', '(or (xor a b) (xor c d))'],
    ['not a and b', '(and (not a) b)'],
    ['not a or not b', '(or (not a) (not b))'],
    ['not not a', '(not (not a))'],
    ['a and b and c', '(and (and a b) c)'],
    ['a or b or c', '(or (or a b) c)'],
    ['a and (b or c)', '(and a [(or b c)])'],
    ['(a and b) or c', '(or [(and a b)] c)'],
  ]);

  test('not negates a whole comparison, not only its field', () => {
    expect(tree('not ip.src in {10.0.0.0/8}')).toBe('(not (in ip.src {1}))');
    expect(tree('not http.host eq "a" and ssl')).toBe('(and (not (eq http.host "a")) ssl)');
  });

  test('C-like notation builds the same tree as English notation', () => {
    expect(tree('!a && b || c ^^ d')).toBe(tree('not a and b or c xor d'));
    expect(tree('x == "1" && y != "2" && z < 1 && z <= 2 && z > 3 && z >= 4 && p ~ "r"')).toBe(
      tree('x eq "1" and y ne "2" and z lt 1 and z le 2 and z gt 3 and z ge 4 and p matches "r"'),
    );
  });

  test('the AST keeps the spelling the author used', () => {
    const parsed = parseExpression('a && b');
    expect(parsed.ok && parsed.ast.kind === 'logical' && parsed.ast.image).toBe('&&');
  });
});

describe('operands and literals', () => {
  answers(tree, '%s', [
    ['http.request.headers["x"][0] eq "v"', '(eq http.request.headers["x"][0] "v")'],
    ['any(lower(http.request.headers.names[*])[*] == "a")', 'any((eq lower(http.request.headers.names[*])[*] "a"))'],
    ['http.host strict wildcard "*.EXAMPLE.com"', '(strict wildcard http.host "*.EXAMPLE.com")'],
    ['ip.src in $office_network', '(in ip.src $office_network)'],
    ['ip.src in {1.1.1.1 10.0.0.0/8 1.1.1.1..1.1.1.9 ::1 2001:db8::/32}', '(in ip.src {5})'],
    ['cf.edge.server_port in {80 443 8000..8009}', '(in cf.edge.server_port {3})'],
    ['true', 'true'],
    ['false', 'false'],
  ]);

  test('raw strings keep their content as written, quotes and backslashes included', () => {
    const parsed = parseExpression('http.request.uri.path matches r##"a"#b\\d"##');
    expect(parsed.ok && parsed.ast.kind === 'comparison' && parsed.ast.right.kind === 'string' && parsed.ast.right.raw).toBe('a"#b\\d');
  });

  test('the tree is plain data: it serialises to JSON (no bigint, no class instances)', () => {
    const parsed = parseExpression('cf.edge.server_port in {80 443 8000..8009} and lookup_json_integer(http.request.body.raw, 1) eq -234');
    expect(() => JSON.parse(JSON.stringify(parsed))).not.toThrow();
    expect(JSON.parse(JSON.stringify(parsed))).toEqual(parsed);
  });

  test('ranges and CIDR prefixes are parsed into their parts', () => {
    const parsed = parseExpression('ip.src in {198.51.100.3..198.51.100.7 2001:0db8::/32}');
    if (!parsed.ok || parsed.ast.kind !== 'comparison' || parsed.ast.right.kind !== 'set') throw new Error('not a set');
    const [range, cidr] = parsed.ast.right.items;
    expect(range).toMatchObject({ kind: 'range', from: { address: '198.51.100.3' }, to: { address: '198.51.100.7' } });
    expect(cidr).toMatchObject({ kind: 'ip', address: '2001:0db8::', prefix: { value: 32 } });
  });
});

describe('positions', () => {
  test('line and column of an error on a later line', () => {
    const result = checkExpression('http.host eq "a"\n  and\n  http.hots eq "b"');
    expect(result).toEqual({ ok: false, errors: [{ line: 3, column: 3, message: 'unknown field "http.hots" (did you mean "http.host"?)' }] });
  });

  test('end of input is the position after the last character', () => {
    expect(checkExpression('ssl and\n')).toEqual({
      ok: false,
      errors: [{ line: 2, column: 1, message: 'expected an expression after "and", found end of input' }],
    });
  });

  test('errors come in the order they appear in the text', () => {
    const result = checkExpression('http.hots eq "a" and ip.src contains "b" and cf.threat_score gt "c"');
    expect(result.ok ? [] : result.errors.map((e) => e.column)).toEqual([1, 29, 65]);
  });

  test('formatExpressionError writes line, column and message', () => {
    expect(formatExpressionError({ line: 1, column: 14, message: 'expected a value after "eq", found end of input' })).toBe(
      'line 1, column 14: expected a value after "eq", found end of input',
    );
  });
});

describe('result', () => {
  test('lists each field read, once, in order of appearance', () => {
    expect(checkExpression('ip.src in {10.0.0.0/8} and (http.host eq "a" or http.host eq "b") and any(http.request.headers["x"][*] eq "y")')).toEqual({
      ok: true,
      fields: ['ip.src', 'http.host', 'http.request.headers'],
    });
  });

  test('an empty or blank expression is an error', () => {
    expect(checkExpression('')).toEqual({ ok: false, errors: [{ line: 1, column: 1, message: 'expected an expression, found end of input' }] });
    expect(checkExpression('  ')).toEqual({ ok: false, errors: [{ line: 1, column: 3, message: 'expected an expression, found end of input' }] });
  });
});

describe('limits', () => {
  test('expressions longer than the service accepts are refused where the excess starts', () => {
    const text = `http.host eq "${'a'.repeat(EXPRESSION_MAX_LENGTH)}"`;
    expect(checkExpression(text)).toEqual({
      ok: false,
      errors: [{ line: 1, column: EXPRESSION_MAX_LENGTH + 1, message: `expression is ${text.length} characters long; the service accepts at most ${EXPRESSION_MAX_LENGTH}` }],
    });
  });

  test('deep nesting is refused instead of exhausting the stack', () => {
    const deep = '('.repeat(65) + 'ssl' + ')'.repeat(65);
    expect(checkExpression(deep)).toEqual({ ok: false, errors: [{ line: 1, column: 65, message: 'expression nests deeper than 64 levels' }] });
    const nots = 'not '.repeat(70) + 'ssl';
    expect(checkExpression(nots).ok).toBe(false);
    const allowed = '('.repeat(32) + 'not '.repeat(31) + 'ssl' + ')'.repeat(32);
    expect(checkExpression(allowed)).toEqual({ ok: true, fields: ['ssl'] });
  });

  test('a long chain of conditions is fine (only nesting is limited)', () => {
    const text = Array.from({ length: 2300 }, () => 'ssl').join(' or ');
    expect(text.length).toBeLessThanOrEqual(EXPRESSION_MAX_LENGTH);
    expect(checkExpression(text)).toEqual({ ok: true, fields: ['ssl'] });
  });
});

describe('catalogs', () => {
  test('field names are unique and every name has a type', () => {
    expect(new Set(FIELD_NAMES).size).toBe(FIELD_NAMES.length);
    expect(FIELDS.size).toBe(FIELD_NAMES.length);
  });

  test.each([
    ['http.host', 'String'],
    ['http.request.uri.path', 'String'],
    ['http.request.headers', 'Map<Array<String>>'],
    ['http.request.uri.args', 'Map<Array<String>>'],
    ['ip.src', 'IP'],
    ['ip.geoip.asnum', 'Int'],
    ['ip.geoip.is_in_european_union', 'Boolean'],
    ['cf.threat_score', 'Int'],
    ['cf.bot_management.detection_ids', 'Array<Int>'],
    ['ssl', 'Boolean'],
    ['raw.http.request.uri.path', 'String'],
    ['cf.random_seed', 'Bytes'],
  ])('%s is %s', (name, type) => {
    const t = FIELDS.get(name);
    expect(t && JSON.stringify(t)).toBe(JSON.stringify(parseName(type)));
  });

  test('every documented function the issue names is known', () => {
    for (const name of ['lower', 'upper', 'len', 'starts_with', 'ends_with', 'any', 'all', 'concat', 'url_decode', 'lookup_json_string', 'lookup_json_integer', 'regex_replace', 'wildcard_replace', 'remove_bytes', 'to_string', 'uuidv4', 'decode_base64', 'cidr', 'cidr6', 'has_key', 'has_value']) {
      expect(FUNCTION_NAMES).toContain(name);
    }
  });
});

function parseName(type: string): unknown {
  const generic = /^(Array|Map)<(.+)>$/.exec(type);
  return generic ? { kind: generic[1], of: parseName(generic[2] as string) } : { kind: type };
}
