import { definePolicy } from '../types.js';
import { budgetRules } from './index.js';
import { Metrics, Settings } from './schema.js';

/** The budget policy whole: its rules with its schemas, each built the first time it is asked for. */
export const budgetPolicy = definePolicy(budgetRules, { settings: Settings, metrics: Metrics });
