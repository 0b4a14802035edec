// The map's projection, in its own module so that the browser test can
// compute where each marker must be.
import { geoNaturalEarth1 } from 'd3-geo';

export const WIDTH = 960;
export const HEIGHT = 500;

export function makeProjection() {
  return geoNaturalEarth1().fitExtent([[6, 6], [WIDTH - 6, HEIGHT - 6]], { type: 'Sphere' });
}
