import { RateLimitRuleKind } from '../kinds';
import { phaseRule } from './kit/phase-rule';
import type { z } from 'zod';

/** Inputs of a RateLimitRule as `check` validates them, before the grammar of its phase (src/kinds, src/rulesets/phase-rules.ts). */
export const RateLimitRuleArgsSchema = RateLimitRuleKind.args;
export type RateLimitRuleInputs = z.output<typeof RateLimitRuleArgsSchema>;

/** A rate limiting rule (phase http_ratelimit), one per resource, written with the per-rule endpoints. */
export const rateLimitRule = phaseRule({ kind: 'RateLimitRule' });
