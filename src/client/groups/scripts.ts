import { ScriptDetailSchema, ScriptSchema } from '../../schemas';
import type { Transport } from '../transport';
import { DetectedGroup, scriptQuery } from './detected';

/** Detected scripts: /zones/{zone_id}/page_guard/scripts; `get` adds page_urls and versions. */
export class ScriptsGroup extends DetectedGroup<'scripts', typeof ScriptSchema, typeof ScriptDetailSchema, 'scriptId'> {
  constructor(transport: Transport) {
    super(transport, { segment: 'scripts', itemSchema: ScriptSchema, detailSchema: ScriptDetailSchema, idKey: 'scriptId', query: scriptQuery });
  }
}
