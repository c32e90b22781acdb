// The open logbook's one inline script: the build bundles this file on its own and writes it into the served HTML
// (app/build/inline-early-paint.ts), where the Content-Security-Policy allows it by its hash.
import { leaveEarlyPaint } from './early-paint-handle';
import { startEarlyPaint } from './early-paint';
import { firstVisitFilesOf } from './first-visit-files';

leaveEarlyPaint(window, startEarlyPaint(document, firstVisitFilesOf(document.currentScript)));
