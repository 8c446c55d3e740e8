import { answers } from './support/table';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MIN_NODE_VERSION, nodeVersionProblem } from '../src/node-version';

describe('nodeVersionProblem', () => {
  answers(nodeVersionProblem, 'Node %s is supported', [
    ['24.21.0', undefined],
    ['22.12.0', undefined],
    ['22.13.1', undefined],
    ['23.0.0', undefined],
    ['v24.1.0', undefined],
  ]);

  test.each(['20.20.2', '22.11.0', '21.7.3', '18.20.8', 'garbage'])('Node %s is refused, saying what to install', (version) => {
    expect(nodeVersionProblem(version)).toBe(
      `pulumi-zoneguard needs Node.js 22.12.0 or later, and this is Node.js ${version}. Install Node.js 24 LTS (or 22 LTS, 22.12 or later) ` +
        'and put it first on PATH: the Pulumi engine starts the providers with the node it finds there.',
    );
  });

  test("package.json's engines.node names the same version", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${MIN_NODE_VERSION.replace(/\.0$/, '')}`);
  });
});
