import type { z } from 'zod';
import { DetectedItemSchema } from './detected';

/** A connection the service detected from the zone's pages. */
export const ConnectionSchema = DetectedItemSchema;
export type Connection = z.infer<typeof ConnectionSchema>;
