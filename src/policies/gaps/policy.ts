import { definePolicy } from '../types.js';
import { gapsRules } from './index.js';
import { Metrics, Settings } from './schema.js';

/** The gap policy whole: its rules with its schemas, each built the first time it is asked for. */
export const gapsPolicy = definePolicy(gapsRules, { settings: Settings, metrics: Metrics });
