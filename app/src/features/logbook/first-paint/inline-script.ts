// The open logbook's one inline script: the build bundles this file on its own and writes it into the served HTML
// (app/build/inline-early-paint.ts), where the Content-Security-Policy allows it by its hash.
import { leaveEarlySigns, type EarlySigns } from '../sign/early-sign-handle';
import { leaveEarlyPaint } from './early-paint-handle';
import { startEarlyPaint } from './early-paint';
import { firstVisitFilesOf } from './first-visit-files';
import { takeServedSubmits } from './served-submits';

const signs: EarlySigns = { pending: undefined, onPress: undefined };
leaveEarlySigns(window, signs);
takeServedSubmits(document, signs);
leaveEarlyPaint(window, startEarlyPaint(document, firstVisitFilesOf(document.currentScript)));
