import { definePolicy } from '../types.js';
import { questionsRules } from './index.js';
import { Metrics, Settings } from './schema.js';

/** The questions policy whole: its rules with its schemas, each built the first time it is asked for. */
export const questionsPolicy = definePolicy(questionsRules, { settings: Settings, metrics: Metrics });
