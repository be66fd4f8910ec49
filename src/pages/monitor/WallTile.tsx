import { Badge, Checkbox, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { useGroupControlMark } from '../../devices/group-marks.ts';
import { type ThumbnailPump, useThumbnail } from '../../devices/wall.ts';
import classes from './MonitorPage.module.css';
import type { TileState } from './wall.ts';

interface Props {
  readonly sn: string;
  readonly model: string;
  readonly state: TileState;
  readonly order: number;
  readonly pump: ThumbnailPump | undefined;
  /** Shows the picture area (thumbnails on). */
  readonly pictures: boolean;
  /** Selection mode: a click toggles the tile instead of opening the device. */
  readonly selecting: boolean;
  readonly selected: boolean;
  readonly grouped: boolean;
  readonly onToggle: (sn: string) => void;
  readonly observe: (el: HTMLElement | null) => void;
}

/** One device on the wall: its state colour, its latest thumbnail while on screen, and its selection. */
export const WallTile = memo(function WallTile({ sn, model, state, order, pump, pictures, selecting, selected, grouped, onToggle, observe }: Props) {
  const { t } = useTranslation();
  const picture = useThumbnail(pictures ? pump : undefined, sn);
  // Another console's group control, heard for online tiles only (offline devices take no input).
  const groupBy = useGroupControlMark(sn, state !== 'offline' && !grouped);
  const body = (
    <>
      {pictures && (
        <div className={classes.thumb}>
          {picture ? <img src={picture} alt="" className={classes.thumbPicture} data-testid="tile-picture" /> : <span className={classes.thumbEmpty}>{t(`wall.state.${state}`)}</span>}
        </div>
      )}
      <div className={classes.tileFoot}>
        <Text size="xs" ff="monospace" className={classes.tileSn}>
          {sn}
        </Text>
        {pictures && (
          <Text size="10px" c="dimmed" className={classes.tileSn}>
            {model}
          </Text>
        )}
      </div>
      {grouped && (
        <Badge size="xs" color="violet" variant="filled" className={classes.groupBadge} data-testid="tile-grouped">
          {t('wall.underGroup')}
        </Badge>
      )}
      {!grouped && groupBy !== undefined && (
        <Tooltip label={t('wall.underGroupBy', { account: groupBy })}>
          <Badge size="xs" color="grape" variant="filled" tt="none" className={classes.groupByBadge} data-testid="tile-group-by">
            {t('wall.underGroupBy', { account: groupBy })}
          </Badge>
        </Tooltip>
      )}
    </>
  );
  const common = {
    ref: observe,
    className: classes.tile,
    'data-state': state,
    'data-online': state === 'offline' ? 'offline' : 'online',
    'data-sn': sn,
    'data-order': order,
    'data-selected': selected ? 'true' : undefined,
    'data-grouped': grouped ? 'true' : undefined,
    'data-group-by': groupBy,
    'data-pictures': pictures ? 'true' : undefined,
  };
  if (selecting) {
    return (
      <UnstyledButton {...common} onClick={() => onToggle(sn)} aria-pressed={selected} aria-label={t('wall.selectTile', { sn })}>
        <Checkbox size="xs" checked={selected} readOnly tabIndex={-1} className={classes.tileCheck} aria-hidden />
        {body}
      </UnstyledButton>
    );
  }
  return (
    <Tooltip label={`${sn} · ${model}`} openDelay={300}>
      <UnstyledButton {...common} component={Link} href={`/device-view/index?sn=${encodeURIComponent(sn)}`}>
        {body}
      </UnstyledButton>
    </Tooltip>
  );
});
