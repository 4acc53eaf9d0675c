template <typename T>
T clamp(T v, T lo, T hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

enum class Mode { Fast, Safe };
