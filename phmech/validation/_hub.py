"""The hub profile of the spin-up benchmark: a smooth ramp to ``omega_s`` over ``T_s``
(rate, acceleration and angle in closed form)."""
import numpy as np


def hub_rate(t, omega_s=6.0, T_s=15.0):
    """Angular velocity of the hub [rad/s]."""
    t = np.asarray(t, float)
    ramp = omega_s / T_s * (t - T_s / (2 * np.pi) * np.sin(2 * np.pi * t / T_s))
    return np.where(t < T_s, ramp, omega_s)


def hub_acceleration(t, omega_s=6.0, T_s=15.0):
    """Angular acceleration of the hub [rad/s^2]."""
    t = np.asarray(t, float)
    return np.where(t < T_s, omega_s / T_s * (1.0 - np.cos(2 * np.pi * t / T_s)), 0.0)


def hub_angle(t, omega_s=6.0, T_s=15.0):
    """Angle of the hub [rad] (the integral of :func:`hub_rate`)."""
    t = np.asarray(t, float)
    c = T_s / (2 * np.pi)
    ramp = omega_s / T_s * (0.5 * t**2 + c**2 * (np.cos(t / c) - 1.0))
    return np.where(t < T_s, ramp, omega_s * T_s / 2 + omega_s * (t - T_s))
