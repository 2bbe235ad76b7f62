#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Mutation fuzzing of the scenario loader and solvers: every shipped scenario
# and every malformed golden case, mutated (lines deleted, values replaced
# by hostile ones, lines duplicated) with a fixed seed, must make damsim
# exit 0, 1 or 2 -- never crash, never trip a sanitizer -- under `check`,
# `run --analytic` and a short simulated `run`.
# usage: fuzz.py DAMSIM SOURCE_DIR [CASES]
import glob, os, random, subprocess, sys, tempfile

damsim, src = sys.argv[1], sys.argv[2]
cases = int(sys.argv[3]) if len(sys.argv) > 3 else 150
random.seed(20261129)
files = sorted(glob.glob(os.path.join(src, 'scenarios', '*.cfg')) +
               glob.glob(os.path.join(src, 'tests', 'golden', 'errors', '*.cfg')))
hostile = ['0', '-1', '1e308', '-1e308', 'nan', '""', '"x"', '{ }', '( )',
           'true', '1.5', '99999999999', '0.0', '1e-300',
           '{ dist = "uniform"; min = 1.0; max = 2.0; }',
           '{ dist = "normal"; mean = 0.0; sd = 1.0; }',
           '{ dist = "triangular"; min = 0.0; mode = 0.0; max = 0.0; }']
env = dict(os.environ)
supp = os.path.join(src, 'tests', 'lsan.supp')
env.setdefault('LSAN_OPTIONS', 'suppressions=' + supp)
passed = failed = 0
with tempfile.TemporaryDirectory() as tmp:
    for i in range(cases):
        text = open(random.choice(files)).read().split('\n')
        for _ in range(random.randint(1, 4)):
            k = random.randrange(len(text))
            op = random.random()
            if op < 0.3:
                del text[k]
            elif op < 0.8 and '=' in text[k]:
                text[k] = text[k].split('=', 1)[0] + '= ' + random.choice(hostile) + ';'
            else:
                text.insert(k, text[random.randrange(len(text))])
        path = os.path.join(tmp, 'case%d.cfg' % i)
        open(path, 'w').write('\n'.join(text))
        for cmd in (['check'], ['run', '--analytic'],
                    ['run', '--steps', '20', '--replications', '2']):
            try:
                r = subprocess.run([damsim] + cmd + [path], capture_output=True,
                                   text=True, env=env, timeout=60)
                code, err = r.returncode, r.stderr
            except subprocess.TimeoutExpired:
                code, err = 'timeout', ''
            bad = code not in (0, 1, 2) or 'Sanitizer' in err or 'runtime error' in err
            if bad:
                failed += 1
                print('FAIL: case %d (%s): exit %s\n%s\n--- scenario ---\n%s'
                      % (i, ' '.join(cmd), code, err[-1500:], '\n'.join(text)))
                break
        else:
            passed += 1
print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
