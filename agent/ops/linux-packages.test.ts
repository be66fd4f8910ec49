import fs from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { installedPackages, linuxOtaFacts, linuxOtaList, MAX_APPS, parseDpkgList, parseOsRelease, parseRpmList, type RunProgram } from './linux-packages.ts';

// dpkg-query -W -f="$DPKG_FORMAT" on Debian 12, with a removed package whose configuration files remain
// and a library installed for two architectures.
const DPKG = [
  'bash\t5.2.15-2+b8\trequired\tyes\t7164\tinstall ok installed',
  'curl\t7.88.1-10+deb12u8\toptional\tno\t500\tinstall ok installed',
  'libc6\t2.36-9+deb12u9\toptional\tno\t12000\tinstall ok installed',
  'libc6\t2.36-9+deb12u9\toptional\tno\t11000\tinstall ok installed',
  'apt\t2.6.1\timportant\tno\t4000\tinstall ok installed',
  'oldtool\t1.0\toptional\tno\t10\tdeinstall ok config-files',
  '',
].join('\n');

const RPM = 'bash\t5.1.8-9.el9\t7738634\nopenssh-server\t8.7p1-38.el9\t1364893\n';

const enoent = (): Error => Object.assign(new Error('spawn ENOENT'), { code: 'ENOENT' });

describe('installed packages as the app list', () => {
  it('maps dpkg packages, marking the base system and running ones, leaving out removed ones', () => {
    const apps = parseDpkgList(DPKG, new Set(['bash']));
    expect(apps.map((a) => a.packageName)).toEqual(['bash', 'curl', 'libc6', 'apt']);
    expect(apps[0]).toEqual({ name: 'bash', packageName: 'bash', versionName: '5.2.15-2+b8', versionCode: 0, type: 'system', running: true, size: 7164 * 1024 });
    expect(apps.find((a) => a.packageName === 'apt')?.type).toBe('system');
    expect(apps.find((a) => a.packageName === 'curl')).toMatchObject({ type: 'general', running: false });
  });

  it('maps rpm packages', () => {
    expect(parseRpmList(RPM)).toEqual([
      { name: 'bash', packageName: 'bash', versionName: '5.1.8-9.el9', versionCode: 0, type: 'general', running: false, size: 7738634 },
      { name: 'openssh-server', packageName: 'openssh-server', versionName: '8.7p1-38.el9', versionCode: 0, type: 'general', running: false, size: 1364893 },
    ]);
  });

  it('falls back from dpkg to rpm to an empty list with a note', async () => {
    const asked: string[] = [];
    const rpmOnly: RunProgram = async (file) => {
      asked.push(file);
      if (file === 'rpm') return RPM;
      throw enoent();
    };
    expect((await installedPackages(rpmOnly)).apps.map((a) => a.packageName)).toEqual(['bash', 'openssh-server']);
    expect(asked).toEqual(['dpkg-query', 'rpm']);
    const none = await installedPackages(async () => Promise.reject(enoent()));
    expect(none.apps).toEqual([]);
    expect(none.note).toMatch(/neither dpkg nor rpm/);
    // A package manager that exists but fails is an error, not an empty list.
    await expect(installedPackages(async () => Promise.reject(new Error('dpkg database locked')))).rejects.toThrow('locked');
  });

  it('cuts a very long list to what fits in one frame, and says so', async () => {
    const many = Array.from({ length: MAX_APPS + 5 }, (_, i) => `pkg${String(i).padStart(5, '0')}\t1\toptional\tno\t1\tinstall ok installed`).join('\n');
    const list = await installedPackages(async () => many);
    expect(list.apps).toHaveLength(MAX_APPS);
    expect(list.note).toContain(`${MAX_APPS + 5} dpkg packages`);
    expect(JSON.stringify(list).length).toBeLessThan(1024 * 1024);
  });

  it.runIf(fs.existsSync('/usr/bin/dpkg-query'))('lists this Debian machine with dpkg: bash is there, as a system package', async () => {
    const list = await installedPackages();
    const bash = list.apps.find((a) => a.packageName === 'bash');
    expect(bash).toMatchObject({ type: 'system', versionName: expect.stringMatching(/^\d/) });
    expect(bash?.size).toBeGreaterThan(0);
  });
});

describe('the OTA list of a Linux terminal', () => {
  const osRelease = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n';

  it('reads os-release values with and without quotes', () => {
    expect(parseOsRelease(osRelease)).toMatchObject({ PRETTY_NAME: 'Debian GNU/Linux 12 (bookworm)', VERSION_ID: '12', ID: 'debian' });
    expect(parseOsRelease("NAME='Alpine \\\"Linux\\\"'\n# comment\n")).toEqual({ NAME: 'Alpine "Linux"' });
  });

  it('reports the OS image as the system package, then the kernel and the agent', () => {
    const ota = linuxOtaList({ osRelease, debianVersion: '12.11\n', kernel: '6.1.0-28-amd64', agentVersion: '0.1.0' });
    expect(ota).toEqual({
      current: '12.11',
      packages: [
        { name: 'Debian GNU/Linux 12 (bookworm)', version: '12.11', type: 'system', state: 'installed' },
        { name: 'linux-kernel', version: '6.1.0-28-amd64', type: 'kernel', state: 'installed' },
        { name: 'device-agent', version: '0.1.0', type: 'agent', state: 'installed' },
      ],
    });
    // The maker's image version wins; Ubuntu's "bookworm/sid" is no version.
    expect(linuxOtaList({ osRelease, debianVersion: '12.11', imageVersion: '241020.10', kernel: 'k', agentVersion: 'a' }).current).toBe('241020.10');
    expect(linuxOtaList({ osRelease: 'NAME="Ubuntu"\nVERSION_ID="24.04"\n', debianVersion: 'trixie/sid', kernel: 'k', agentVersion: 'a' }).current).toBe('24.04');
    expect(linuxOtaList({ osRelease: '', kernel: '6.1.0', agentVersion: 'a' }).packages[0]).toMatchObject({ name: 'Linux', version: '6.1.0' });
  });

  it("reads this machine's facts, with the agent's package version", () => {
    const facts = linuxOtaFacts(undefined);
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
    expect(facts).toMatchObject({ kernel: os.release(), agentVersion: pkg.version });
    expect(linuxOtaList(facts).packages[0]?.type).toBe('system');
  });
});
