/**
 * The test suite needs programs npm cannot install: a PostgreSQL server (the API suite runs on it
 * too), Chromium for the console, and espeak-ng and ffmpeg for audios. On a Debian machine where
 * we are root, install what is missing; anywhere else, say what to install and stop.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const requirements = [
  { debianPackage: 'postgresql', present: () => fs.existsSync('/usr/lib/postgresql') && fs.readdirSync('/usr/lib/postgresql').length > 0 },
  { debianPackage: 'chromium', present: () => fs.existsSync('/usr/bin/chromium') },
  // Audios: text to speech, and probing and converting sound (the server needs them too).
  { debianPackage: 'espeak-ng', present: () => fs.existsSync('/usr/bin/espeak-ng') },
  { debianPackage: 'ffmpeg', present: () => fs.existsSync('/usr/bin/ffmpeg') && fs.existsSync('/usr/bin/ffprobe') },
];

const missing = requirements.filter((requirement) => !requirement.present()).map((requirement) => requirement.debianPackage);
if (missing.length > 0) {
  const canInstall = process.getuid?.() === 0 && fs.existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    console.error(`Missing system packages: ${missing.join(', ')}. Install them (Debian: apt-get install ${missing.join(' ')}) and run again.`);
    process.exit(1);
  }
  console.log(`Installing ${missing.join(', ')} with apt-get...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
}
