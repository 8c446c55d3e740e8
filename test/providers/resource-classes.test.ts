// The resource classes under the SDK's mocks: each kind's class constructs (an input the SDK's Resource already
// holds, such as `__name`, would fail the construction in every program), hands its provider its logical name and
// its owner marker and what its sample sends, and has an Output for every property of its kind's declaration (src/kinds), computed ones
// included: the engine makes an Output only for a registered key, and a declared one missing is undefined at run time.
import * as pulumi from '@pulumi/pulumi';
import { declarationOf, propertiesOf, RESOURCE_KINDS, typeToken } from '../../src/kinds';
import { NAME_KEY, providerText } from '../../src/providers';
import { STACK_OWNER, STACK_OWNER_TYPE } from '../../src/kinds';
import { MOVED_FROM_KEY, OWNER_ID_KEY, OWNER_KEY, ownerMarker } from '../../src/kinds/marker';
import { STACK_OWNER_NAME } from '../../src/resources/stack-owner';
import { constructSample, sampleArgs, sampleInputs } from '../support/kind-samples';

const registered: Array<{ type: string; name: string; inputs: Record<string, unknown> }> = [];
beforeAll(async () => {
  await pulumi.runtime.setMocks({
    newResource: (args) => {
      registered.push({ type: args.type, name: args.name, inputs: args.inputs as Record<string, unknown> });
      // The stack's owner id, as its provider's create draws it (src/providers/stack-owner.ts).
      if (args.name === STACK_OWNER_NAME) return { id: OWNER_ID, state: { ownerId: OWNER_ID } };
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: () => ({}),
  });
});

const zoneId = 'a'.repeat(32);
const OWNER_ID = '0123456789abcdef';
const resolved = <T>(output: pulumi.Output<T>) => new Promise<T>((resolve) => output.apply(resolve));

test.each(RESOURCE_KINDS)('%s constructs, passes its name and its inputs to the provider, and has every property of its declaration as an Output', async (kind) => {
  const name = `sample-${kind.toLowerCase()}`;
  const resource = constructSample(kind, name, sampleArgs(kind, zoneId));
  expect(await resolved(resource.urn)).toBe(`urn:pulumi:stack::project::${typeToken(kind)}::${name}`);
  const entry = registered.find((r) => r.name === name);
  expect(entry?.inputs[NAME_KEY]).toBe(name);
  // Its owner marker: the digest of its full identity (the stack's owner id, the mocks' project and stack, no parent, kind and name).
  expect(entry?.inputs[OWNER_KEY]).toBe(ownerMarker({ ownerId: OWNER_ID, project: 'project', stack: 'stack', parent: '', kind, name }));
  expect(entry?.inputs[OWNER_ID_KEY]).toBe(OWNER_ID);
  // A CustomRule also passes the markers the firewall resources of its name held: a move's deletes know them as this stack's (kit/move-deletes.ts).
  const legacyMarker = (legacyKind: string) => ownerMarker({ ownerId: OWNER_ID, project: 'project', stack: 'stack', parent: '', kind: legacyKind, name });
  expect(entry?.inputs[MOVED_FROM_KEY]).toEqual(kind === 'CustomRule' ? [legacyMarker('FirewallRuleWithFilter'), legacyMarker('FirewallRule')] : undefined);
  const { [NAME_KEY]: _name, [OWNER_KEY]: _owner, [OWNER_ID_KEY]: _ownerId, [MOVED_FROM_KEY]: _moved, __provider: _provider, ...sent } = entry!.inputs;
  expect(sent).toEqual(sampleInputs(kind, zoneId));
  const properties = propertiesOf(declarationOf(kind));
  const asRecord = resource as unknown as Record<string, unknown>;
  expect(properties.filter((key) => !pulumi.Output.isInstance(asRecord[key]))).toEqual([]);
});

test('the stack owner id is one resource of the run, however many resources use it, with its provider text and no input of its own', () => {
  const owners = registered.filter((r) => r.type === STACK_OWNER_TYPE);
  expect(owners).toEqual([{ type: STACK_OWNER_TYPE, name: STACK_OWNER_NAME, inputs: { __provider: providerText(STACK_OWNER) } }]);
  expect(registered.length).toBeGreaterThan(RESOURCE_KINDS.length);
});
