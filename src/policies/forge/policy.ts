import { definePolicy } from '../types.js';
import { forgeRules } from './index.js';
import { Metrics, Settings } from './schema.js';

/** The forge policy whole: its rules with its schemas, each built the first time it is asked for. */
export const forgePolicy = definePolicy(forgeRules, { settings: Settings, metrics: Metrics });
