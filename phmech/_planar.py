"""Small planar-kinematics helpers shared by the bodies and the joints."""
import numpy as np

#: The planar cross-product matrix: ``S @ v`` is ``e_z x v``.
S = np.array([[0.0, -1.0], [1.0, 0.0]])


def rot(theta):
    """Rotation matrix ``R(theta)`` mapping body-frame to inertial components."""
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def drot(theta):
    """Derivative ``dR/dtheta = R(theta) S``."""
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[-s, -c], [c, -s]])
