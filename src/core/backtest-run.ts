import type { GapflowEvent } from '../../events/index.js';
import { counterfactual, recordedCourse, withSettings, type BacktestSettings, type Counterfactual, type Course } from './backtest.js';
import { compareCourses, type Comparison } from './backtest-compare.js';

/** One setting to replay under, with the words that name it (`stall-threshold=3`). */
export interface Variant {
  label: string;
  settings: BacktestSettings;
}

export interface BacktestRow {
  setting: string;
  settings: BacktestSettings;
  run: Counterfactual;
  comparison: Comparison;
}

/** A recorded session against each variant: what the record did, and what each run did beside it. */
export interface SessionBacktest {
  recorded: Course;
  rows: BacktestRow[];
}

export function backtestSession(events: readonly GapflowEvent[], variants: readonly Variant[]): SessionBacktest {
  const recorded = recordedCourse(events);
  const rows = variants.map(({ label, settings }) => {
    const run = counterfactual(events, settings);
    return { setting: label, settings, run, comparison: compareCourses(recorded, run) };
  });
  return { recorded, rows };
}

/**
 * Every combination of the axes (a grid is their product), each variant's
 * settings merged over the ones before it; `fixed` applies to every one.
 * One variant with no settings (the record's own) when there is nothing to vary.
 */
export function variantGrid(fixed: readonly Variant[], axes: readonly (readonly Variant[])[]): Variant[] {
  const base = fixed.reduce(mergeVariants, { label: '', settings: {} });
  let variants = [base];
  for (const axis of axes) variants = variants.flatMap((variant) => axis.map((value) => mergeVariants(variant, value)));
  return variants.map((variant) => (variant.label === '' ? { ...variant, label: 'as recorded' } : variant));
}

function mergeVariants(a: Variant, b: Variant): Variant {
  const label = [a.label, b.label].filter(Boolean).join(' ');
  return { label, settings: withSettings(a.settings, b.settings) };
}
