import { definePolicy } from '../types.js';
import { qualityRules } from './index.js';
import { Metrics, Settings } from './schema.js';

/** The quality policy whole: its rules with its schemas, each built the first time it is asked for. */
export const qualityPolicy = definePolicy(qualityRules, { settings: Settings, metrics: Metrics });
