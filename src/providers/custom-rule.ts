import { CustomRuleKind } from '../kinds';
import { phaseRule } from './kit/phase-rule';
import type { z } from 'zod';

/** Inputs of a CustomRule as `check` validates them, before the grammar of its phase (src/kinds, src/rulesets/phase-rules.ts). */
export const CustomRuleArgsSchema = CustomRuleKind.args;
export type CustomRuleInputs = z.output<typeof CustomRuleArgsSchema>;

/** A custom rule (phase http_request_firewall_custom), one per resource, written with the per-rule endpoints. */
export const customRule = phaseRule({ kind: 'CustomRule' });
