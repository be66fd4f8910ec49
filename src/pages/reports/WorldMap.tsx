import { ActionIcon, Box, Group, Text } from '@mantine/core';
import { geoBounds, geoContains, geoNaturalEarth1, geoPath } from 'd3-geo';
import type { Feature, FeatureCollection, Geometry } from 'geojson';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { MapPoint } from '../../../protocol/api/reports.ts';
import { CHART_PALETTE } from './palette.ts';

type Country = Feature<Geometry, { name: string }>;

let countriesPromise: Promise<Country[]> | undefined;

/** The packaged world map (world-atlas, 1:110m), loaded once and on demand: no tile server. */
function loadCountries(): Promise<Country[]> {
  countriesPromise ??= import('world-atlas/countries-110m.json').then((m) => {
    const topo = (m.default ?? m) as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
    return (feature(topo, topo.objects.countries) as FeatureCollection<Geometry, { name: string }>).features;
  });
  return countriesPromise;
}

/** Most zoom steps; the server clusters on a grid that halves with each step (levels 0-6). */
export const MAX_ZOOM = 6;

interface Props {
  readonly points: readonly MapPoint[];
  readonly height?: number;
  /** Told when the zoom level changes, so the page can ask for finer clusters. */
  readonly onZoom?: (level: number) => void;
  readonly interactive?: boolean;
}

const ONLINE = CHART_PALETTE[1];
const OFFLINE = '#8c8c8c';
const COVERED = '#bae0ff';
const LAND = '#eef1f5';

/**
 * Devices on an offline world map (d3-geo over world-atlas): clustered points sized by device count and
 * coloured by their online share; countries holding devices are shaded. Zoom centres on a clicked cluster.
 */
export function WorldMap({ points, height = 480, onZoom, interactive = true }: Props) {
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(960);
  const [countries, setCountries] = useState<Country[]>();
  const [zoom, setZoom] = useState(0);
  const [center, setCenter] = useState<[number, number]>([10, 20]);

  useEffect(() => {
    let live = true;
    void loadCountries().then((c) => live && setCountries(c));
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setWidth(Math.max(320, el.clientWidth)));
    observer.observe(el);
    return () => {
      live = false;
      observer.disconnect();
    };
  }, []);

  const projection = useMemo(() => {
    const p = geoNaturalEarth1().fitSize([width, height], { type: 'Sphere' });
    if (zoom === 0) return p;
    return p.scale(p.scale() * 2 ** zoom).rotate([-center[0], 0]).center([0, center[1]]).translate([width / 2, height / 2]);
  }, [width, height, zoom, center]);
  const path = useMemo(() => geoPath(projection), [projection]);

  // Countries with at least one device are shaded: a bounding-box test first, the exact test after.
  const covered = useMemo(() => {
    const set = new Set<number>();
    if (!countries) return set;
    countries.forEach((c, i) => {
      const [[w, s], [e, n]] = geoBounds(c);
      if (points.some((p) => p.lat >= s && p.lat <= n && (w <= e ? p.lng >= w && p.lng <= e : p.lng >= w || p.lng <= e) && geoContains(c, [p.lng, p.lat]))) set.add(i);
    });
    return set;
  }, [countries, points]);

  const maxCount = points.reduce((m, p) => Math.max(m, p.count), 1);
  const changeZoom = (next: number, at?: [number, number]) => {
    const z = Math.max(0, Math.min(MAX_ZOOM, next));
    if (at) setCenter(at);
    if (z === 0) setCenter([10, 20]);
    setZoom(z);
    onZoom?.(z);
  };

  return (
    <Box ref={box} pos="relative" data-testid="world-map">
      {interactive && (
        <Group gap={4} pos="absolute" top={8} right={8} style={{ zIndex: 1 }}>
          <ActionIcon variant="default" aria-label={t('reports.map.zoomIn')} onClick={() => changeZoom(zoom + 1)}>
            +
          </ActionIcon>
          <ActionIcon variant="default" aria-label={t('reports.map.zoomOut')} onClick={() => changeZoom(zoom - 1)}>
            −
          </ActionIcon>
          <ActionIcon variant="default" aria-label={t('reports.map.resetView')} onClick={() => changeZoom(0)}>
            ⌂
          </ActionIcon>
        </Group>
      )}
      <svg width={width} height={height} role="img" aria-label={t('reports.map.title')} style={{ display: 'block', background: '#f7fbff' }}>
        <g data-testid="map-countries">
          {countries?.map((c, i) => (
            <path key={c.id ?? i} d={path(c) ?? ''} fill={covered.has(i) ? COVERED : LAND} stroke="#c9d1db" strokeWidth={0.5}>
              <title>{c.properties.name}</title>
            </path>
          ))}
        </g>
        <g data-testid="map-points">
          {points.map((p) => {
            const xy = projection([p.lng, p.lat]);
            if (!xy || xy[0] < -20 || xy[0] > width + 20 || xy[1] < -20 || xy[1] > height + 20) return null;
            const r = 3 + 14 * Math.sqrt(p.count / maxCount);
            const share = p.count ? p.online / p.count : 0;
            return (
              <g
                key={`${p.lat},${p.lng},${p.sn ?? ''}`}
                transform={`translate(${xy[0]},${xy[1]})`}
                style={{ cursor: interactive && p.count > 1 ? 'zoom-in' : 'default' }}
                onClick={() => interactive && p.count > 1 && changeZoom(zoom + 2, [p.lng, p.lat])}
              >
                <circle r={r} fill={share >= 0.5 ? ONLINE : OFFLINE} fillOpacity={0.75} stroke="#fff" strokeWidth={1} />
                {p.count > 1 && r >= 8 && (
                  <text textAnchor="middle" dy="0.35em" fontSize={10} fill="#fff">
                    {p.count}
                  </text>
                )}
                <title>{p.sn ?? t('reports.map.cluster', { count: p.count, online: p.online })}</title>
              </g>
            );
          })}
        </g>
      </svg>
      <Group gap="md" mt={4}>
        <Text size="xs" c="dimmed">
          <span style={{ color: ONLINE }}>●</span> {t('reports.map.online')} <span style={{ color: OFFLINE }}>●</span> {t('reports.map.offline')}
        </Text>
      </Group>
    </Box>
  );
}
