import * as path from 'node:path';
import * as ts from 'typescript';

// The API reference (typedoc, `npm run docs`) documents every resource class's constructor and every output: each
// has a doc comment in src/, inherited ones included (zoneId, urn and id come from @pulumi/pulumi's own).
const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'src', 'index.ts');
const program = ts.createProgram([entry], { strict: true, target: ts.ScriptTarget.ES2023, module: ts.ModuleKind.CommonJS });
const checker = program.getTypeChecker();
const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!);
const classes = exported
  .map((symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol))
  .filter((symbol) => symbol.flags & ts.SymbolFlags.Class);
const ours = (declaration: ts.Declaration) => !path.relative(path.join(root, 'src'), declaration.getSourceFile().fileName).startsWith('..');

test('the root entry point exports the nine resource classes', () => {
  expect(classes.map((symbol) => symbol.name).sort()).toEqual([
    'CspPolicy',
    'CustomRule',
    'FirewallFilter',
    'FirewallRule',
    'FirewallRuleWithFilter',
    'PageGuardSettings',
    'RateLimitRule',
    'WafManagedRules',
    'WafMigration',
  ]);
});

describe.each(classes.map((symbol) => [symbol.name, symbol] as const))('%s', (_name, symbol) => {
  const declaration = symbol.declarations!.find(ts.isClassDeclaration)!;

  test('has a doc comment on the class and on its constructor, with each parameter', () => {
    expect(symbol.getDocumentationComment(checker).length).toBeGreaterThan(0);
    const constructor = declaration.members.find(ts.isConstructorDeclaration);
    expect(constructor).toBeDefined();
    const signature = checker.getSignatureFromDeclaration(constructor!)!;
    expect(ts.displayPartsToString(signature.getDocumentationComment(checker))).not.toBe('');
    const params = ts.getJSDocTags(constructor!).filter(ts.isJSDocParameterTag).map((tag) => tag.name.getText());
    expect(params).toEqual(['name', 'args', 'opts']);
  });

  test('has a doc comment on every output of ours', () => {
    const outputs = checker
      .getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))
      .filter((property) => property.declarations?.some(ours));
    expect(outputs.length).toBeGreaterThan(2);
    expect(outputs.filter((property) => property.getDocumentationComment(checker).length === 0).map((property) => property.name)).toEqual([]);
  });
});
