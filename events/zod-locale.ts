import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/*
 * zod/mini, unlike classic zod, has no locale until it is given one: its
 * issues would all say "Invalid input". The refusals users see are worded
 * from these issues (readIssue, request.ts), some from zod's own English
 * messages (an invalid date-time, a bad record key), so every module that builds a
 * schema imports this one first. The English locale is what classic zod
 * sets; a locale set before this (a library caller's) is kept.
 */
if (!z.config().localeError) z.config(en());
