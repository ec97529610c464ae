import { definePolicy } from '../types.js';
import { atomsRules } from './index.js';
import { Metrics, Settings } from './schema.js';

/** The atoms policy whole: its rules with its schemas, each built the first time it is asked for. */
export const atomsPolicy = definePolicy(atomsRules, { settings: Settings, metrics: Metrics });
