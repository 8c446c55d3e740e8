import { declarationOf, label, type ResourceKind } from '../../kinds';
import { ProviderError, unlessNotFound, type Implementation } from './implementation';
import { nameOf } from './ownership';
import type { LiveObject } from './marker';
import { markerIn } from '../../schemas/owner-marker';

/**
 * What a kind that holds many objects per zone tells the flow they share (`adoptableObject`): create or adopt by id,
 * a coalesced read that forgets only what the service says is gone, an update, and a delete that takes "not found"
 * as done. Everything else (the kind's name, noun, adopt input, computed outputs) comes from its declaration.
 */
export interface AdoptableSpec<W extends { id: string }, I extends { zoneId: string }, O extends I> {
  kind: ResourceKind;
  /** What the steps call the object: `the policy`, `the filter`, `the rule`. */
  object: string;
  /** Runs one step, prefixing a failure with the resource and the step (kit/implementation.ts `step`, or the firewall's). */
  step<T>(what: string, call: () => Promise<T>): Promise<T>;
  /** Runs a write of the zone, so that the zone's coalesced reads never answer from a listing older than it. */
  writing<T>(zoneId: string, call: () => Promise<T>): Promise<T>;
  /** A refresh's read, coalesced (kit/coalesce.ts); undefined when the service says the object is gone. */
  read(zoneId: string, id: string): Promise<W | undefined>;
  /** The zone's objects, listed once per run (kit/coalesce.ts `listing`): where a create finds its interrupted run's object. */
  listing(zoneId: string): Promise<readonly W[]>;
  /** One object by id (the client's NotFoundError when the service says it does not exist). */
  get(zoneId: string, id: string): Promise<W>;
  create(inputs: I): Promise<W>;
  /** Brings the object to the declared fields; `current` is what the state (or the adopted object) holds. */
  update(inputs: I, id: string, current: O): Promise<W>;
  /** Deletes the object; the caller takes "not found" as done. */
  remove(zoneId: string, id: string, props: O): Promise<void>;
  /** The service's answer in the provider's names. */
  outputs(zoneId: string, object: W, adopted?: string): O;
  /** Whether `current` already holds every declared field (an adoption then writes nothing). */
  matches(current: O, inputs: I): boolean;
  /** The create step's words, when they say more than `creating <object>`. */
  creating?(inputs: I): string;
}

/** The create, read, update and delete of a kind that holds many objects per zone, from its spec. */
export function adoptableObject<W extends { id: string }, I extends { zoneId: string }, O extends I>(
  spec: AdoptableSpec<W, I, O>,
): Pick<Implementation, 'create' | 'read' | 'update' | 'delete'> & LiveObject {
  const { identity, outputs: computed } = declarationOf(spec.kind);
  const adoptInput = identity.adoptInput!;
  const labelOf = (props: Record<string, unknown>, id?: string) => label(spec.kind, props, nameOf(props), id);

  async function adopt(inputs: I, id: string): Promise<W> {
    const found = await unlessNotFound(() => spec.get(inputs.zoneId, id), undefined);
    if (!found) {
      throw new ProviderError(
        `${labelOf(inputs)}: ${adoptInput} ${id} names no ${identity.noun} of this zone; check the id (zoneguard export lists them), ` +
          `or remove ${adoptInput} to create a new ${spec.object.replace(/^the /, '')}`,
      );
    }
    // Read first, and write only what differs: adopting an object already as declared changes nothing.
    const current = spec.outputs(inputs.zoneId, found);
    return spec.matches(current, inputs) ? found : spec.update(inputs, id, current);
  }

  /** The inputs a read reports, so a preview after refresh is clean: the outputs without what the provider computes. */
  const inputsOf = (outs: O) => Object.fromEntries(Object.entries(outs).filter(([key]) => !(computed as readonly string[]).includes(key)));

  return {
    // The owner marker's read (kit/marker.ts): coalesced like a refresh's, so a destroy of many reads a zone's list.
    async live(id, props) {
      const { zoneId } = props as O;
      const object = await spec.step(`${labelOf(props, id)}: reading ${spec.object}`, () => spec.read(zoneId, id));
      return object && spec.outputs(zoneId, object);
    },

    async carrying(props, marker) {
      const { zoneId } = props as I;
      const objects = await spec.step(`${labelOf(props)}: listing the zone's objects for one its interrupted run made`, () => spec.listing(zoneId));
      return objects.filter((object) => markerIn(object, identity.marker) === marker).map((object) => object.id);
    },

    async create(raw) {
      const inputs = raw as I;
      const adopted = typeof raw[adoptInput] === 'string' ? (raw[adoptInput] as string) : undefined;
      const object = await spec.writing(inputs.zoneId, () =>
        adopted
          ? spec.step(`${labelOf(raw, adopted)}: adopting ${spec.object}`, () => adopt(inputs, adopted))
          : spec.step(`${labelOf(raw)}: ${spec.creating?.(inputs) ?? `creating ${spec.object}`}`, () => spec.create(inputs)),
      );
      return { id: object.id, outs: spec.outputs(inputs.zoneId, object, adopted) };
    },

    async read(id, props) {
      const recorded = props as O;
      const object = await spec.step(`${labelOf(props, id)}: reading ${spec.object}`, () => spec.read(recorded.zoneId, id));
      // Deleted out of band: a blank id takes the resource out of the state, and the next up creates it again.
      if (!object) return { id: '' };
      const outs = spec.outputs(recorded.zoneId, object, props[adoptInput] as string | undefined);
      return { id, props: outs, inputs: inputsOf(outs) };
    },

    async update(id, olds, news) {
      const desired = news as I;
      const object = await spec.writing(desired.zoneId, () =>
        spec.step(`${labelOf(news, id)}: updating ${spec.object}`, () => spec.update(desired, id, olds as O)),
      );
      return { outs: spec.outputs(desired.zoneId, object, news[adoptInput] as string | undefined) };
    },

    async delete(id, props) {
      const { zoneId } = props as O;
      // Already gone is what delete wants: not an error.
      await spec.writing(zoneId, () => spec.step(`${labelOf(props, id)}: deleting ${spec.object}`, () => unlessNotFound(() => spec.remove(zoneId, id, props as O), undefined)));
    },
  };
}
