export { fleetSource, folderSource, RESCAN_MS, type FleetEntry, type FleetSource, type FolderWatchOptions } from './source.js';
export { errorRow, fleetRow, warningsOf, weightedOpenChart, type ChartPoint, type FleetRow, type Staleness, type Warning } from './rows.js';
export { Fleet, type FleetChange, type FleetOptions, type SessionDetail } from './fleet.js';
export { escapeLabel, METRICS_CONTENT_TYPE, metricsText } from './metrics.js';
export { ageWords, fleetTable, forecastWords } from './text.js';
export { dashboardPage, escapeHtml } from './page.js';
export { dashboardServer, type Dashboard } from './server.js';
export { DATABASE_POLL_MS, databaseSource } from './database.js';
export { isPassingReadFailure, RETRY_FIRST_MS, RETRY_MAX_MS, retryDelayMs, SETTLE_WITHIN_MS } from './retry.js';
