import { Group, Menu, NavLink } from '@mantine/core';
import { IconChevronDown } from '@tabler/icons-react';
import { useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { type AreaRoute, areaOf } from '../routes.tsx';
import { areaIcons } from './icons.tsx';
import { menuCounts } from './menu-counts.tsx';
import { fittingItemCount } from './menu-overflow.ts';

const ITEM_STYLE = { borderRadius: 'var(--mantine-radius-md)', whiteSpace: 'nowrap' } as const;

function AreaLink({ area, active }: { area: AreaRoute; active: boolean }) {
  const { t } = useTranslation();
  const Icon = areaIcons[area.icon]!;
  const Count = menuCounts[area.icon];
  return (
    <NavLink component={Link} to={area.paths[0]!} label={t(area.titleKey)} leftSection={<Icon size={18} />} rightSection={Count && <Count />} active={active} w="auto" style={ITEM_STYLE} />
  );
}

/**
 * The top layout's menu in one row: the items that fit, then a "More" menu with the rest, so no
 * item is cut off or needs sideways scrolling whatever the width and the language. The items are
 * laid out once more out of sight to know their widths (labels change with the language).
 */
export function TopMenu({ areas }: { areas: AreaRoute[] }) {
  const { t } = useTranslation();
  const current = areaOf(useLocation().pathname, areas);
  const rowRef = useRef<HTMLDivElement>(null);
  const measureRef = useRef<HTMLDivElement>(null);
  const [visible, setVisible] = useState(areas.length);

  useLayoutEffect(() => {
    const row = rowRef.current;
    const measure = measureRef.current;
    if (!row || !measure) return;
    const fit = () => {
      const start = measure.getBoundingClientRect().left;
      const boxes = Array.from(measure.children, (child) => child.getBoundingClientRect());
      const more = boxes.pop();
      if (!more) return;
      const ends = boxes.map((box) => box.right - start);
      const gap = boxes.length > 0 ? more.left - boxes[boxes.length - 1]!.right : 0;
      setVisible(fittingItemCount(ends, more.width, gap, row.getBoundingClientRect().width));
    };
    fit();
    const observer = new ResizeObserver(fit);
    observer.observe(row);
    observer.observe(measure);
    return () => observer.disconnect();
  }, [areas]);

  const shown = areas.slice(0, visible);
  const overflow = areas.slice(visible);
  const moreLabel = t('layout.more');
  return (
    <Group ref={rowRef} gap={4} wrap="nowrap" style={{ flex: 1, minWidth: 0, position: 'relative' }} data-testid="top-menu">
      {shown.map((area) => (
        <AreaLink key={area.paths[0]} area={area} active={area === current} />
      ))}
      {overflow.length > 0 && (
        <Menu position="bottom-start" withinPortal>
          <Menu.Target>
            <NavLink
              component="button"
              label={moreLabel}
              aria-label={t('layout.moreItems')}
              rightSection={<IconChevronDown size={14} />}
              active={current !== undefined && overflow.includes(current)}
              w="auto"
              style={ITEM_STYLE}
              data-testid="menu-more"
            />
          </Menu.Target>
          <Menu.Dropdown>
            {overflow.map((area) => {
              const Icon = areaIcons[area.icon]!;
              const Count = menuCounts[area.icon];
              return (
                <Menu.Item key={area.paths[0]} component={Link} to={area.paths[0]!} leftSection={<Icon size={16} />} rightSection={Count && <Count />} data-active={area === current || undefined}>
                  {t(area.titleKey)}
                </Menu.Item>
              );
            })}
          </Menu.Dropdown>
        </Menu>
      )}
      {/* Clipped to nothing, so that its width never widens the page. */}
      <div aria-hidden style={{ position: 'absolute', top: 0, left: 0, width: 0, height: 0, overflow: 'hidden', visibility: 'hidden' }}>
        <Group ref={measureRef} gap={4} wrap="nowrap" w="max-content">
          {areas.map((area) => (
            <AreaLink key={area.paths[0]} area={area} active={false} />
          ))}
          <NavLink component="button" tabIndex={-1} label={moreLabel} rightSection={<IconChevronDown size={14} />} w="auto" style={ITEM_STYLE} />
        </Group>
      </div>
    </Group>
  );
}
